// Kept in step with package.json by a test; read without importing anything heavy.
export const VERSION = "0.1.0";
