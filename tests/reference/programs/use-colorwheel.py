import re

# The CSS colour keywords this page asks for, as #rrggbb (the CSS standard's values).
named = {'black': '000000', 'white': 'ffffff', 'aqua': '00ffff', 'blue': '0000ff', 'gray': '808080',
         'green': '008000', 'lime': '00ff00', 'maroon': '800000', 'navy': '000080', 'olive': '808000',
         'purple': '800080', 'red': 'ff0000', 'silver': 'c0c0c0', 'teal': '008080', 'yellow': 'ffff00',
         'pink': 'ffc0cb', 'magenta': 'ff00ff', 'gold': 'ffd700', 'orange': 'ffa500'}
wanted = re.search(r'Select (\w+) with', task).group(1).lower()
click('input_text', 'col')
press_key('Control+a')
enter_text(named[wanted])
click('button', 'Submit')
