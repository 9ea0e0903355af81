"""The HTML report as a reader sees it in real headless Chromium: tables, programs, screenshots, nothing external."""

from __future__ import annotations

import json
from pathlib import Path

from webwise.browser import launch
from webwise.cli import main
from webwise.report import write_report

REPLIES = {
    "click-button": ["```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```"],
    "click-link": ["```python\nclick('span', 'no such link text')\n```"],  # fails: an error for the report to show
}


def test_report_shows_tables_programs_errors_and_screenshots(tmp_path: Path) -> None:
    replay = tmp_path / "replies.json"
    replay.write_text(json.dumps(REPLIES))
    out = tmp_path / "out"
    assert main(["bench", "--tasks", "click-button,click-link", "--examples", "none", "--max-steps", "1",
                 "--llm", f"replay:{replay}", "--out", str(out)]) == 0
    (out / "tables.md").unlink()
    assert main(["report", str(out)]) == 0
    assert (out / "tables.md").is_file()  # report regenerates the tables
    report = write_report(out)

    browser = launch()
    try:
        driver = browser.driver
        driver.get(report.as_uri())
        text = driver.find_element("tag name", "body").text
        assert "| click-button" not in text  # real tables, not Markdown
        rows = [row.text for row in driver.find_elements("css selector", "tbody tr")]
        assert "click-button 1 1.00 (1/1) 1.00 1.00" in " ".join(rows)
        assert "click-link 1 0.00 (0/1)" in " ".join(rows)
        assert any(row.startswith("1 0.50 (1/2)") and row.endswith("0.87") for row in rows)  # the paper's k=0 number

        programs = [p for p in driver.find_elements("css selector", "pre.program") if p.is_displayed()]
        assert any("re.search(r'\"(.*)\"', task)" in p.text for p in programs)
        assert "Error: " in text and "no such link text" in text
        prompt = driver.find_element("css selector", "details pre")
        assert not prompt.is_displayed()  # prompts are long: collapsed until the reader opens them
        driver.find_element("css selector", "details summary").click()
        assert prompt.is_displayed() and "[system]" in prompt.text

        images = driver.execute_script(
            "return Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.src.slice(0, 22)]);")
        assert len(images) == 2 and all(done and width > 0 and src == "data:image/png;base64," for done, width, src in images)
        outside = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
            ".concat(Array.from(document.querySelectorAll('[src],[href]')).map(e => e.getAttribute('src') || e.getAttribute('href')))"
            ".filter(u => !u.startsWith('data:') && !u.startsWith('#'));")
        assert outside == []
    finally:
        browser.quit()
