import re

password = re.search(r'"(.*)"', task).group(1)
for field in ('password', 'verify'):
    click('input_password', field)
    enter_text(password)
click('button', 'Submit')
