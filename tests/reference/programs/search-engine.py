import re

query = re.search(r'"(.*?)"', task).group(1)
rank = int(re.search(r'(\d+)(st|nd|rd|th) search result', task).group(1))
click('input_text', 'search-text')
enter_text(query)
click('button', 'Search')
# Three results a page.
page, place = divmod(rank - 1, 3)
if page:
    click('page-link', str(page + 1))
titles = [e for e in observation if 'search-title' in e['classes'].split()]
# By ref: titles repeat across results.
click('search-title', '[%d]' % titles[place]['ref'])
