import re

extension = re.search(r'extension \.(\S+)$', task)
click('input_text', 'terminal-target')
enter_text('ls\n')
listing = [e['text'] for e in observation if 'output' in e['classes'].split()][-1].split()
if extension:
    name = next(f for f in listing if f.endswith('.' + extension.group(1)))
else:
    name = next(f for f in listing if '.' not in f)
enter_text('rm ' + name + '\n')
