# The caret's jump to either end of a text area scrolls it there.
click('textarea', 'text-area')
press_key('Control+End' if 'bottom' in task else 'Control+Home')
click('button', 'Submit')
