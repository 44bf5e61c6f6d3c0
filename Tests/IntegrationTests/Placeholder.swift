import Testing

@Test func placeholder_IntegrationTests() {}
