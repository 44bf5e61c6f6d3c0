import Testing

@Test func placeholder_CourierManifestTests() {}
