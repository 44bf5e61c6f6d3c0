print("todolist: not yet")
