import re

# A post lists its name, its @username, its body, then its buttons (textless spans whose
# class says what each does), so a button belongs to the last username above it.
label, user = re.search(r'Click the "(.+)" button on all posts by (\S+) and', task).groups()
owner = None
for element in observation:
    classes = element['classes'].split()
    if 'username' in classes:
        owner = element['text']
    elif owner == user and label.lower() in classes:
        click('span', f"[{element['ref']}]")
click('button', 'Submit')
