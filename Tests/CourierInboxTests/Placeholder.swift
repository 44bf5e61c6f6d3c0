import Testing

@Test func placeholder_CourierInboxTests() {}
