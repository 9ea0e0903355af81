import re

wanted = re.search(r'the (\S+) colored box', task).group(1).lower()
box = next(e for e in observation if 'color' in e['classes'].split() and e['color'] == wanted)
click('div', f"[{box['ref']}]")
