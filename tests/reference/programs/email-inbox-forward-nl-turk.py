import re

# Both people are inbox senders: find the names the task mentions, in order of mention.
names = {e['text'] for e in observation if 'email-sender' in e['classes'].split()}
spots = sorted((m.start(), name) for name in names
               for m in re.finditer(r"(?<![\w-])" + re.escape(name) + r"(?=('?s)?(?![\w-]))", task))
people = list(dict.fromkeys(name for _, name in spots))


def said(pattern):
    """The mentioned people the pattern (N standing for the name) fits."""
    return [p for p in people if re.search(pattern.replace('N', re.escape(p)), task, re.I)]


# The sender is the one the mail is "by" or "from", else the one whose mail it is.
sender = (said(r"\b(by|from)\s+N\b|\bN\s+sent\b") or said(r"\bN('s|s)|\bN\s+(e-?mail|wants his)") or people)[0]
recipient = next((p for p in people if p != sender), sender)
click('email-sender', sender)
click('email-forward', '')
click('forward-sender', '')
enter_text(recipient)
click('span', 'send-forward')
