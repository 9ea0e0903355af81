import re

sender = re.search(r'email by (.+?) and ', task).group(1)
recipient = re.search(r'forward that email to (.+)\.$', task).group(1)
click('email-sender', sender)
click('email-forward', '')
click('forward-sender', '')
enter_text(recipient)
click('span', 'send-forward')
