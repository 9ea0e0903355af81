import re

# A post lists its name, its @username, its body, then its buttons (textless spans whose
# class says what each does), so a button belongs to the last username above it. Reply,
# Retweet and Like are such spans; the other actions sit in the post's "more" menu, whose
# icon may still be drawing (not yet shown) when the page is first read.
user, label = re.search(r'For the user (\S+), click on the "(.+)" button', task).groups()
kind = label.lower() if label in ('Reply', 'Retweet', 'Like') else 'more'


def button():
    """The [ref] of the user's first button of this kind on the page as last read, or None."""
    owner = None
    for element in observation:
        classes = element['classes'].split()
        if 'username' in classes:
            owner = element['text']
        elif owner == user and kind in classes:
            return f"[{element['ref']}]"
    return None


for _ in range(10):
    if button():
        break
    wait(0.3)
click('span', button())
if kind == 'more':
    click('li', label)  # only the menu just opened is shown
