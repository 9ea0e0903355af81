import re

# One contact per page. The name is an h2, which the observation leaves out, but a click
# reaches any visible element, so a click on the name fails on every other contact's page;
# written in the summary's notation ('"Ann"') it matches the whole text only, not "Annabel".
# Turn pages with ">" until it succeeds, then click the link of the property asked for
# (each link's class names its property).
person, field = re.search(r'Find (.+) in the contact book and click on their (\w+)', task).groups()
for _ in range(5):
    try:
        click('h2', f'"{person}"')
    except Exception:
        click('a', '>')
        continue
    link = next(e for e in observation if e['tag'] == 'a' and field in e['classes'].split())
    click('a', link['text'])
    break
