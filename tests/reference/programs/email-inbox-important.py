import re

sender = re.search(r'email by (.+?) and ', task).group(1)
click('email-sender', sender)
click('star', '')
