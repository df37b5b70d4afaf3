// The prediction part is built by a later milestone; this keeps its target in the
// dependency graph so the include rules already hold.
namespace tickwire::prediction {
int placeholder_symbol() { return 0; }
}  // namespace tickwire::prediction
