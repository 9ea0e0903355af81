import re

username, password = re.findall(r'"(.*?)"', task)


def field(kind, name):
    """Focus the field; a popup may come up on focus: dismiss it, then focus again."""
    click(kind, name)
    if any(e['id'] == 'popup-cancel' for e in observation):
        click('button', 'Cancel')
        click(kind, name)


field('input_text', 'username')
enter_text(username)
field('input_password', 'password')
enter_text(password)
click('button', 'OK')
