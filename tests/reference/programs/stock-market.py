import datetime
import re

# The price changes every 0.1 s by at most $1.50, and a click lands some tens of ms after the
# page was read, so a price just at the limit may have risen by then. Buy on a fresh change
# (one seen by a short poll) to a price $1.50 below the limit, which the next change cannot
# lift above it; the walk gets there in most episodes. After 6 s, buy at the limit.
limit = float(re.search(r'less than \$(\d+(?:\.\d+)?)', task).group(1))
start = datetime.datetime.now()
seen, short = None, False
for _ in range(48):
    margin = 1.5 if (datetime.datetime.now() - start).total_seconds() < 6 else 0
    price = next((e['text'] for e in observation if e['id'] == 'stock-price'), '')
    value = float(price.lstrip('$')) if price else None
    if value is not None and value <= limit - margin and short and price != seen:
        click('button', 'Buy')
        break
    seen = price
    short = value is not None and value <= limit - margin + 1.5
    wait(0.02 if short else 0.15)
