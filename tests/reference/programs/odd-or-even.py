# Each row is: button "Odd", the number, button "Even"; every row's buttons share their texts,
# so a button is named by its [ref].
for i, element in enumerate(observation):
    if 'display-number' in element['classes'].split():
        number = int(element['text'])
        side = range(i - 1, -1, -1) if number % 2 else range(i + 1, len(observation))
        button = next(observation[j] for j in side if observation[j]['tag'] == 'button')
        click('button', f"[{button['ref']}]")
click('button', 'Submit')
