import re

problem = next(e['text'] for e in observation if e['id'] == 'math-problem')
left, total = [side.strip() for side in problem.split('=')]
first, op, second = left.split()
total = int(total)
if first == 'x':
    x = total - int(second) if op == '+' else total + int(second)
else:
    x = total - int(first) if op == '+' else int(first) - total
click('input_text', 'math-answer')
enter_text(str(x))
click('button', 'Submit')
