import re

sender = re.search(r'email by (.+?) and ', task).group(1)
click('email-sender', sender)
if 'trash icon' in task:
    click('trash', '')
elif 'star icon' in task:
    click('star', '')
elif 'reply to them' in task:
    message = re.search(r'with the text "(.*)"', task).group(1)
    click('email-reply', '')
    click('textarea', 'reply-text')
    enter_text(message)
    click('span', 'send-reply')
else:
    recipient = re.search(r'forward that email to (.+)\.$', task).group(1)
    click('email-forward', '')
    click('forward-sender', '')
    enter_text(recipient)
    click('span', 'send-forward')
