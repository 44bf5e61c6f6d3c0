print("courierd: not yet")
