import re

point = re.search(r'\(-?\d+,-?\d+\)', task).group(0)
click('circle', point)  # each grid point's id is its coordinate
