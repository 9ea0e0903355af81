import re

username, password = re.findall(r'"(.*?)"', task)
click('input_text', 'username')
enter_text(username)
click('input_password', 'password')
enter_text(password)
click('button', 'Login')
