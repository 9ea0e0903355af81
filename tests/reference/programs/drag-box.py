# The small box (20 px) dropped on the large one's centre (50 px) lies inside it.
drag('div', 's', 'div', 'L')
click('button', 'Submit')
