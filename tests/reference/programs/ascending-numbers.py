# Clicking "1" hides the other numbers under squares kept in the numbers' order; each click
# on the first square left removes it, so the first square is always the next number.
click('text', '1')
while any(e['tag'] == 'rect' for e in observation):
    click('rect', '')
