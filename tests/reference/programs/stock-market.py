import datetime
import re

# The price changes every 0.1 s by at most $1.50, and a click lands some tens of ms after the
# page was read, so a price just at the limit may have risen by then. Buy on a fresh change
# (one seen by a short poll, so the click lands before the next change) to a price $0.80
# below the limit, so that even a change before the click seldom lifts it above; after 5 s,
# at the limit. Stop before the program's 10 s are up.
limit = float(re.search(r'less than \$(\d+(?:\.\d+)?)', task).group(1))
start = datetime.datetime.now()
seen, short = None, False
for _ in range(48):
    seconds = (datetime.datetime.now() - start).total_seconds()
    if seconds > 9.3:
        break
    margin = 0.8 if seconds < 5 else 0
    price = next((e['text'] for e in observation if e['id'] == 'stock-price'), '')
    value = float(price.lstrip('$')) if price else None
    if value is not None and value <= limit - margin and short and price != seen:
        click('button', 'Buy')
        break
    seen = price
    short = value is not None and value <= limit - margin + 1.5
    wait(0.02 if short else 0.15)
