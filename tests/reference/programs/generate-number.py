import re


def wanted(number):
    """Whether `number` meets the task's condition."""
    bound = re.search(r'(less|greater) than (-?\d+)', task)
    if bound:
        limit = int(bound.group(2))
        return number < limit if bound.group(1) == 'less' else number > limit
    return number % 2 == (1 if 'odd' in task else 0)


# Generate until the shown number meets the condition (each draw is 0-10), then submit.
for _ in range(40):
    click('button', 'Generate')
    shown = next(e['text'] for e in observation if e['id'] == 'display-number')
    if wanted(int(shown)):
        click('button', 'Submit')
        break
