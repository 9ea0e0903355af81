import re

# A post lists its name, its @username, its body, then its buttons (textless spans whose
# class says what each does), so a button belongs to the last username above it.
label, count, user = re.search(r'Click the "(.+)" button on (\d+) posts? by (\S+) and', task).groups()
left = int(count)
owner = None
for element in observation:
    classes = element['classes'].split()
    if 'username' in classes:
        owner = element['text']
    elif left and owner == user and label.lower() in classes:
        click('span', f"[{element['ref']}]")
        left -= 1
click('button', 'Submit')
