import re

# The example on the right is an image; these are the digits it draws, 7 rows of 4 boxes
# ('#' checked), the same for every seed. The digit to draw is read from the task.
DIGITS = {
    '0': '.##.|#..#|#..#|#..#|#..#|#..#|.##.',
    '1': '..#.|.##.|..#.|..#.|..#.|..#.|..#.',
    '2': '.##.|#..#|#..#|..#.|.#..|#...|####',
    '3': '.##.|#..#|...#|.##.|...#|#..#|.##.',
    '4': '#...|#.#.|#.#.|####|..#.|..#.|..#.',
    '5': '####|#...|#...|###.|...#|#..#|.##.',
    '6': '.##.|#..#|#...|###.|#..#|#..#|.##.',
    '7': '####|#..#|...#|..#.|..#.|.#..|.#..',
    '8': '.##.|#..#|#..#|.##.|#..#|#..#|.##.',
    '9': '.##.|#..#|#..#|.###|...#|#..#|.##.',
}
digit = re.search(r'"(\d)"', task).group(1)
cells = DIGITS[digit].replace('|', '')
boxes = [e for e in observation if e['tag'] == 'input_checkbox']
for box, cell in zip(boxes, cells):
    if cell == '#':
        click('input_checkbox', f"[{box['ref']}]")
click('button', 'Submit')
