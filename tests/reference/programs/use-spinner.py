import re

# The spinner takes no typing, but ArrowUp and ArrowDown step it by one from 0.
wanted = int(re.search(r'Select (-?\d+)', task).group(1))
click('input_text', 'spinner')
for _ in range(abs(wanted)):
    press_key('ArrowUp' if wanted > 0 else 'ArrowDown')
click('button', 'Submit')
