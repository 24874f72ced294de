// cross_caller.cpp's callee: sum of (i + 1) * v[i], through a stack buffer so that it has a frame.
namespace xfile {
int weighted(const int *v, unsigned n) {
  volatile int buf[8];
  for (unsigned i = 0; i < 8; ++i) buf[i] = int(i + 1);
  int s = 0;
  for (unsigned i = 0; i < n; ++i) s += buf[i % 8] * v[i];
  return s;
}
} // namespace xfile
