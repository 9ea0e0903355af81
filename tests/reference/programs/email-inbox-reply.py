import re

sender = re.search(r'email by (.+?) and ', task).group(1)
message = re.search(r'with the text "(.*)"', task).group(1)
click('email-sender', sender)
click('email-reply', '')
click('textarea', 'reply-text')
enter_text(message)
click('span', 'send-reply')
