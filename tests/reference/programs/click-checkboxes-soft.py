import re

# Word groups of the same meaning: what a reader knows, not read from the page.
SYNONYMS = [
    'big large huge enormous gigantic', 'small tiny little mini petite',
    'red scarlet crimson vermillion', 'happy cheerful joyful gleeful delighted',
    'sad unhappy sorrowful miserable tragic', 'angry mad furious irritated',
    'evil wicked immoral sinful corrupt depraved', 'wrong incorrect mistaken erroneous',
    'real genuine actual', 'strange odd peculiar unusual weird', 'stop cease halt end finish',
    'scared terrified panicked fearful frightened afraid', 'quiet calm peaceful serene mild',
    'old aged archaic', 'love like adore favor', 'kill murder assassinate',
    'keep retain preserve sustain maintain', 'hide conceal camouflage',
    'hate despise loathe detest dislike', 'funny humorous amusing comical laughable',
    'fat fleshy plump chubby', 'stupid dumb dull unwise', 'delicious savory delectable appetizing',
    'cut slice carve chop', 'brave courageous fearless', 'begin start initiate launch',
    'answer reply response', 'television televisions TV TVs', 'house home houses homes',
    'fire flame fires flames', 'pig pork swine', 'rabbit rabbits bunny bunnies',
    'car cars automobile automobiles vehicle vehicles', 'water',
]


def group(word):
    return next((set(g.split()) for g in SYNONYMS if word in g.split()), {word})


listed = re.search(r'similar to (.*) and click Submit', task).group(1)
meanings = [group(word) for word in listed.split(', ')]
# Each box's word is a bare text node inside its label.
for element in observation:
    if element['tag'] == 't' and any(element['text'] in meaning for meaning in meanings):
        click('label', element['text'])
click('button', 'Submit')
