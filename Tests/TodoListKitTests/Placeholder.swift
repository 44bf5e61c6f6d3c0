import Testing

@Test func placeholder_TodoListKitTests() {}
