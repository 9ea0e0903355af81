import re

durations = [e['text'] for e in observation if 'time-duration' in e['classes'].split()]
buttons = [e for e in observation if 'buy-ticket' in e['classes'].split()]
minutes = [int(h) * 60 + int(m) for h, m in (re.search(r'(\d+)h (\d+)m', d).groups() for d in durations)]
prices = [int(re.search(r'\$(\d+)', b['text']).group(1)) for b in buttons]
key = {'cheapest cost': prices, 'most expensive cost': [-p for p in prices],
       'shortest duration': minutes, 'longest duration': [-m for m in minutes]}
wanted = re.search(r'with the (.*)\.', task).group(1)
values = key[wanted]
chosen = buttons[values.index(min(values))]
click('button', f"[{chosen['ref']}]")
