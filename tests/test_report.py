"""The HTML report as a reader sees it in real headless Chromium: charts, failures first, filters,
an opened episode's steps with program, feedback and screenshot, nothing external, hostile text inert."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any, Iterator

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from webwise.browser import launch
from webwise.cli import main

REPLIES = {
    "click-button": ["```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```"],
    "click-link": ["```python\nclick('span', 'no such link text')\n```"],  # fails: an error for the report to show
}
#: Text a record may carry that would run or break the page if it were ever parsed as HTML.
HOSTILE_TASK = 'x"><script>window.pwned = "task"</script>'
HOSTILE_PROGRAM = "click('a', '</script><script>window.pwned = \"program\"</script>')\n# </SCRIPT >\u2028<!--"
HOSTILE_ERROR = '<img src=x onerror="window.pwned = \'error\'">\x00\x07\x1b[31m'
INFRA = "the browser died: session deleted"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real bench (one solved, one failed episode with screenshots) plus a hostile and an infra record."""
    tmp = tmp_path_factory.mktemp("report")
    replay = tmp / "replies.json"
    replay.write_text(json.dumps(REPLIES))
    out = tmp / "out"
    assert main(["bench", "--tasks", "click-button,click-link", "--examples", "none", "--max-steps", "1",
                 "--llm", f"replay:{replay}", "--out", str(out)]) == 0
    results = out / "results.jsonl"
    records = [json.loads(line) for line in results.read_text().splitlines()]
    failed = next(r for r in records if r["task"] == "click-link")
    hostile = copy.deepcopy(failed)
    hostile.update(task=HOSTILE_TASK, utterance="<!-- " + HOSTILE_ERROR, error=HOSTILE_ERROR)
    hostile["trace"][0].update(program=HOSTILE_PROGRAM, error=HOSTILE_ERROR, feedback=HOSTILE_ERROR)
    hostile["trace"][0]["prompt"][-1]["content"] = HOSTILE_PROGRAM
    infra = copy.deepcopy(failed)
    infra.update(seed=7, infra_error=INFRA)
    infra["trace"][0]["screenshot"] = "gone.png"  # the browser died before it was taken
    with results.open("a") as handle:
        for record in (hostile, infra):
            handle.write(json.dumps(record) + "\n")
    (out / "tables.md").unlink()
    assert main(["report", str(out)]) == 0
    assert (out / "tables.md").is_file()  # report regenerates the tables
    return out / "report.html"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    session = launch()
    yield session.driver
    session.quit()


@pytest.fixture
def page(report: Path, browser: Any) -> Any:
    browser.get(report.as_uri())
    return browser


def shown(driver: Any) -> list[tuple[str, str]]:
    """(task, outcome) of the episodes the reader sees, top to bottom."""
    return [(e.get_attribute("data-task"), e.get_attribute("data-outcome"))
            for e in driver.find_elements(By.CSS_SELECTOR, "details.episode") if e.is_displayed()]


def click(driver: Any, element: Any) -> None:
    """Click as a reader does, with the element in the middle of the window, clear of the sticky filters."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def open_episode(driver: Any, episode: Any) -> None:
    """Open an episode by its summary line and wait for its steps (drawn on the toggle event, which is queued)."""
    click(driver, episode.find_element(By.TAG_NAME, "summary"))
    WebDriverWait(driver, 10).until(lambda _: episode.find_elements(By.CSS_SELECTOR, ".body"))


def test_charts_show_success_by_group_beside_the_papers_rows_and_per_task_costs(page: Any) -> None:
    groups = page.find_element(By.CSS_SELECTOR, "svg.groups")
    assert groups.get_attribute("role") == "img" and "Success by group" in groups.get_attribute("aria-label")
    bars = page.execute_script(
        "return Array.from(arguments[0].querySelectorAll('g.bar')).map(g => g.querySelector('title').textContent);",
        groups)
    success = page.execute_script("return document.querySelector('table tbody tr td:nth-child(2)').textContent;")
    assert f"group 1, bench: {success}" in bars  # the bench's group 1 row of the table, drawn
    assert "group 1, paper gpt-3.5: 0.87" in bars  # the paper's webwise k=0 row beside it
    assert any(b.startswith("group other, bench: 0.00") for b in bars)
    tasks = page.find_element(By.CSS_SELECTOR, "svg.tasks")
    titles = page.execute_script(
        "return Array.from(arguments[0].querySelectorAll('g.bar title')).map(t => t.textContent);", tasks)
    assert "click-button (group 1), success: 1.00 (1/1)" in titles
    assert "click-link (group 1), LLM calls / episode: 1.00" in titles
    assert any(t.startswith("click-button (group 1), tokens / episode: ") for t in titles)
    rows = " ".join(row.text for row in page.find_elements(By.CSS_SELECTOR, "tbody tr"))
    assert "click-button 1 1.00 (1/1) 1.00 1.00" in rows  # the tables are still there, as real tables
    headers = [th.text for th in page.find_elements(By.CSS_SELECTOR, "thead th")]
    assert "computed (not cached)/call" in headers  # and where the model's time went


def test_failures_come_first_then_infra_faults_then_solved(page: Any) -> None:
    outcomes = [outcome for _, outcome in shown(page)]
    assert outcomes == ["failed", "failed", "infra", "solved"]
    assert shown(page)[0][0] == "click-link"
    assert "4 episodes: 2 failed, 1 infra fault, 1 solved" in page.find_element(By.ID, "counts").text


def test_typing_a_task_name_hides_the_other_tasks_episodes(page: Any) -> None:
    page.find_element(By.ID, "task-filter").send_keys("click-button")
    assert shown(page) == [("click-button", "solved")]
    assert page.find_element(By.ID, "shown").text == "1 of 4 episodes shown"
    page.find_element(By.ID, "task-filter").clear()
    page.find_element(By.ID, "task-filter").send_keys("link")  # part of a name matches too
    assert {task for task, _ in shown(page)} == {"click-link"}
    click(page, page.find_element(By.CSS_SELECTOR, 'svg.tasks g.task-row[data-task="click-button"] text'))
    assert shown(page) == [("click-button", "solved")]  # a task's row in the chart lists its episodes


def test_the_outcome_filter_keeps_one_outcome(page: Any) -> None:
    outcome = Select(page.find_element(By.ID, "outcome-filter"))
    outcome.select_by_value("solved")
    assert shown(page) == [("click-button", "solved")]
    outcome.select_by_value("infra")
    assert shown(page) == [("click-link", "infra")]
    outcome.select_by_value("failed")
    assert {o for _, o in shown(page)} == {"failed"} and len(shown(page)) == 2


def test_an_opened_episode_shows_its_steps_with_program_feedback_and_screenshot(page: Any) -> None:
    assert page.find_elements(By.CSS_SELECTOR, "pre.program, img") == []  # nothing drawn before it is opened
    solved = page.find_element(By.CSS_SELECTOR, 'details.episode[data-outcome="solved"]')
    open_episode(page, solved)
    program = solved.find_element(By.CSS_SELECTOR, "pre.program")
    assert program.is_displayed() and "re.search(r'\"(.*)\"', task)" in program.text
    assert "the task is complete" in solved.find_element(By.CSS_SELECTOR, ".feedback").text
    prompt = solved.find_element(By.CSS_SELECTOR, ".step details pre")
    assert not prompt.is_displayed()  # prompts are long: collapsed until the reader opens them
    click(page, solved.find_element(By.CSS_SELECTOR, ".step details summary"))
    assert prompt.is_displayed() and "[system]" in prompt.text
    images = page.execute_script(
        "return Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.src.slice(0, 22)]);")
    assert images == [[True, 800, "data:image/png;base64,"]]

    failed = page.find_element(By.CSS_SELECTOR, 'details.episode[data-task="click-link"]')
    open_episode(page, failed)
    assert "no such link text" in failed.find_element(By.CSS_SELECTOR, ".error").text
    infra = page.find_element(By.CSS_SELECTOR, 'details.episode[data-outcome="infra"]')
    open_episode(page, infra)
    assert f"Infrastructure fault: {INFRA}" in infra.text and "screenshot gone.png is missing" in infra.text
    outside = page.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
        ".concat(Array.from(document.querySelectorAll('[src],[href]')).map(e => e.getAttribute('src') || e.getAttribute('href')))"
        ".filter(u => !u.startsWith('data:') && !u.startsWith('#'));")
    assert outside == []


def test_hostile_record_text_is_shown_as_text_and_never_runs(page: Any) -> None:
    hostile = page.find_element(By.CSS_SELECTOR, "details.episode[data-task^='x\"']")
    assert hostile.get_attribute("data-task") == HOSTILE_TASK
    assert len(page.find_elements(By.CSS_SELECTOR, "details.episode")) == 4  # nothing cut the page short
    open_episode(page, hostile)
    program = hostile.find_element(By.CSS_SELECTOR, "pre.program")
    assert page.execute_script("return arguments[0].textContent;", program) == HOSTILE_PROGRAM
    error = page.execute_script("return arguments[0].querySelector('.step .error').textContent;", hostile)
    assert error == "Error: " + HOSTILE_ERROR
    click(page, hostile.find_element(By.CSS_SELECTOR, ".step details summary"))
    assert HOSTILE_PROGRAM in page.execute_script(
        "return arguments[0].querySelector('.step details pre').textContent;", hostile)
    assert page.execute_script(  # no script ran, no element was injected: the one image is the step's screenshot
        "return [window.pwned, document.title, Array.from(document.images).map(i => i.className)];") == [
        None, "webwise bench report", ["screenshot"]]


def test_a_whole_suite_run_taught_by_its_harvest_shows_every_table_of_tables_md(report: Path, browser: Any,
                                                                             tmp_path: Path) -> None:
    """The report's tables are those of tables.md: a run beyond the 48 stands beside AgentLab,
    and one whose store taught some tasks has its self-taught column set, with what it means."""
    records = [json.loads(line) for line in (report.parent / "results.jsonl").read_text().splitlines()]
    solved = next(r for r in records if r["task"] == "click-button" and not r.get("infra_error"))
    outside = {**solved, "task": "ascending-numbers"}  # beyond the 48: compared with AgentLab
    taught = {**solved, "examples": "auto"}
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (solved, outside, taught)))
    assert main(["report", str(tmp_path)]) == 0
    browser.get((tmp_path / "report.html").as_uri())
    paragraphs = [p.text for p in browser.find_elements(By.TAG_NAME, "p")]
    assert any(p.startswith("`auto+none` is what `--examples auto` gives") for p in paragraphs)
    assert any(p.startswith("Beside AgentLab. AgentLab's rows are") for p in paragraphs)
    rows = [row.text for row in browser.find_elements(By.CSS_SELECTOR, "tbody tr")]
    assert "AgentLab GenericAgent, GPT-4o 125 625 0.638" in rows
    assert "this run, trial 1 2 2 1.00 (2/2) 1.00 (2/2)" in rows
    assert (tmp_path / "tables.md").read_text().count("### Beside AgentLab") == 2  # none, auto+none


def test_files_the_user_may_not_read_are_one_line_or_left_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Root reads anything, so reading answers as for another user's files: an unreadable
    results file is a one-line error, an unreadable screenshot is left out as a gone one is."""
    from webwise.episode import Episode
    from webwise.report import _Blobs

    (tmp_path / "screenshots").mkdir()
    (tmp_path / "screenshots" / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "results.jsonl").write_text(json.dumps(Episode("click-button", 0, "webwise", "none", "x").to_dict())
                                            + "\n")
    read_bytes = Path.read_bytes

    def unreadable(path: Path) -> bytes:
        if path.name in ("shot.png", "results.jsonl"):
            raise PermissionError(13, "Permission denied", str(path))
        return read_bytes(path)

    open_file = os.open

    def closed_to_us(path: object, flags: int, *args: object) -> int:
        if Path(str(path)).name == "results.jsonl":
            raise PermissionError(13, "Permission denied", str(path))
        return open_file(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "read_bytes", unreadable)
    monkeypatch.setattr(os, "open", closed_to_us)
    assert _Blobs(tmp_path / "screenshots").screenshot("shot.png") is None
    assert main(["report", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"webwise: error: cannot read {tmp_path / 'results.jsonl'}: Permission denied\n"


def test_a_screenshot_larger_than_any_a_bench_takes_is_left_out(tmp_path: Path) -> None:
    """A sparse 512 MiB file with a PNG's first bytes, planted in a handed-over folder, made a
    report of 716 MB; read whole, it took as much memory."""
    from webwise.report import MAX_SCREENSHOT_BYTES, _Blobs

    (tmp_path / "screenshots").mkdir()
    for name, size in (("huge.png", MAX_SCREENSHOT_BYTES + 1), ("shot.png", 64)):
        with (tmp_path / "screenshots" / name).open("wb") as png:
            png.write(b"\x89PNG\r\n\x1a\n")
            png.truncate(size)
    blobs = _Blobs(tmp_path / "screenshots")
    assert blobs.screenshot("huge.png") is None and blobs.screenshot("shot.png") == 0
