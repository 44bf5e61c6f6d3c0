public enum BusTestSupportPlaceholder {}
