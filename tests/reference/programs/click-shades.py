import re

wanted = re.search(r'shades of (\w+)', task).group(1).lower()
channels = ['red', 'green', 'blue']


def strongest(colour):
    """The channel a shade of pure red, green or blue has most of (#rrggbb)."""
    values = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return channels[values.index(max(values))]


shades = [e for e in observation if e['tag'] == 'span' and e['color'].startswith('#')]
for shade in shades:
    if strongest(shade['color']) == wanted:
        click('span', f"[{shade['ref']}]")
click('button', 'Submit')
