import re

# Selection sort: the lowest number not yet in place goes onto the item in its place.
for place in range(3):
    numbers = [e['text'] for e in observation if e['tag'] == 'div' and re.fullmatch(r'-?\d+', e['text'])]
    rest = numbers[place:]
    lowest = min(rest, key=int)
    if int(lowest) < int(numbers[place]):
        drag('div', lowest, 'div', numbers[place])
click('button', 'Submit')
