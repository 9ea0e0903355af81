import re

extension = re.search(r'extension \.(\S+)$', task)
click('input_text', 'terminal-target')
enter_text('ls\n')
listing = [e['text'] for e in observation if 'output' in e['classes'].split()][-1].split()
if extension:
    ext = extension.group(1)
    ending = [f for f in listing if f.endswith('.' + ext)]
    # The page looks for the extension's first occurrence in the name, so 'puppy.py' fails
    # for py: prefer a name holding it only at its end (a seed with no such name is lost).
    name = next((f for f in ending if f.find(ext) == len(f) - len(ext)), ending[0])
else:
    name = next(f for f in listing if '.' not in f)
enter_text('rm ' + name + '\n')
