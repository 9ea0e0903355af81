import re

wanted = re.search(r'"(.*)"', task).group(1)


def in_view():
    return any(e['text'] == wanted and {'file', 'folder'} & set(e['classes'].split()) for e in observation)


# Open the closed folders one by one (by ref: names repeat) until the name shows.
while not in_view():
    folder = next(e for e in observation if 'folder' in e['classes'].split() and not e['clicked'])
    click('folder', '[%d]' % folder['ref'])
click('span', wanted)
