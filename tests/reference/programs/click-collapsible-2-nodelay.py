import re

wanted = re.search(r'link "(.*)"', task).group(1)


def link_shown():
    return any(e['text'] == wanted and 'alink' in e['classes'].split() for e in observation)


for header in [e['text'] for e in observation if e['tag'] == 'h3']:
    if link_shown():
        break
    click('h3', header)
click('alink', wanted)
