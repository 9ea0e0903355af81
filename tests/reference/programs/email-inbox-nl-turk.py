import re

# The inbox senders the task mentions, in order of mention (a forward names two of them).
names = {e['text'] for e in observation if 'email-sender' in e['classes'].split()}
spots = sorted((m.start(), name) for name in names
               for m in re.finditer(r"(?<![\w-])" + re.escape(name) + r"(?=('?s)?(?![\w-]))", task))
people = list(dict.fromkeys(name for _, name in spots))


def said(pattern):
    """The mentioned people the pattern (N standing for the name) fits."""
    return [p for p in people if re.search(pattern.replace('N', re.escape(p)), task, re.I)]


# The sender is the one the mail is "by" or "from", else the one whose mail it is.
sender = (said(r"\b(by|from)\s+N\b|\bN\s+sent\b") or said(r"\bN('s|s)|\bN\s+(e-?mail|wants his)") or people)[0]
click('email-sender', sender)
if '"' in task:
    message = re.search(r'"(.*)"', task).group(1).strip('" ')
    click('email-reply', '')
    click('textarea', 'reply-text')
    enter_text(message)
    click('span', 'send-reply')
elif re.search(r"delet|rid of|trash|remov|don't want|out of my|throw|recycl", task, re.I):
    click('trash', '')
elif len(people) > 1 or re.search(r'forward|foward|send|give|copy|\brecei?ve\b|\brecieve\b|wants|waiting', task, re.I):
    click('email-forward', '')
    click('forward-sender', '')
    enter_text(next((p for p in people if p != sender), sender))
    click('span', 'send-forward')
else:
    click('star', '')
