import Testing

@Test func placeholder_CourierBrokerTests() {}
