print("liveline")
