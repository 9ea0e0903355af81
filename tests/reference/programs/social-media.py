import re

# A post lists its name, its @username, its body, then its buttons (textless spans whose
# class says what each does), so a button belongs to the last username above it. Reply,
# Retweet and Like are such spans; the other actions sit in the post's "more" menu.
user, label = re.search(r'For the user (\S+), click on the "(.+)" button', task).groups()
kind = label.lower() if label in ('Reply', 'Retweet', 'Like') else 'more'
owner = None
for element in observation:
    classes = element['classes'].split()
    if 'username' in classes:
        owner = element['text']
    elif owner == user and kind in classes:
        click('span', f"[{element['ref']}]")
        break
if kind == 'more':
    click('li', label)  # only the menu just opened is shown
