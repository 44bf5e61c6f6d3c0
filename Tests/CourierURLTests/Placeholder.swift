import Testing

@Test func placeholder_CourierURLTests() {}
