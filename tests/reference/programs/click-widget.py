import re

kind = re.search(r'"(.*)"', task).group(1)
tags = {'radio': 'input_radio', 'checkbox': 'input_checkbox', 'text': 'input_text',
        'textarea': 'textarea', 'button': 'button'}
click(tags[kind], '')
