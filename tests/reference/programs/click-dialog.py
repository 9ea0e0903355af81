click('ui-dialog-titlebar-close', '')
