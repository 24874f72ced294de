// Stream callbacks: a StreamCallback whose prefetch has data only every other time (the engine
// then calls fetch), each call logged to show the prefetch / fetch / complete contract; a lambda
// on a device-to-host stream; reconnecting drops a prefetched buffer (invalidatePrefetched).
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <iostream>
#include <memory>
#include <vector>

using namespace poplar;
using namespace poplar::program;

class Counter : public StreamCallback {
public:
  explicit Counter(std::vector<std::string> &log) : log_(log) {}
  Result prefetch(void *p) override {
    ++calls_;
    if (calls_ % 2) {
      log_.push_back("prefetch: not available");
      return Result::NotAvailable;
    }
    fill(p);
    log_.push_back("prefetch: " + std::to_string(next_ - 1));
    return Result::Success;
  }
  void fetch(void *p) override {
    fill(p);
    log_.push_back("fetch: " + std::to_string(next_ - 1));
  }
  void complete() override { log_.push_back("complete"); }
  void invalidatePrefetched() override { log_.push_back("invalidatePrefetched"); }

private:
  void fill(void *p) {
    float *f = static_cast<float *>(p);
    for (int i = 0; i < 4; ++i) f[i] = float(next_ * 10 + i);
    ++next_;
  }
  std::vector<std::string> &log_;
  int calls_ = 0, next_ = 1;
};

int main() {
  IPUModel ipuModel;
  ipuModel.tilesPerIPU = 2;
  Device device = ipuModel.createDevice();
  // The program: the stream "in" fills x, which goes back on "out".
  Graph g2(device.getTarget());
  Tensor x = g2.addVariable(FLOAT, {4}, "x");
  g2.setTileMapping(x.slice(0, 2), 0);
  g2.setTileMapping(x.slice(2, 4), 1);
  DataStream sIn = g2.addHostToDeviceFIFO("in", FLOAT, 4);
  DataStream sOut = g2.addDeviceToHostFIFO("out", FLOAT, 4);
  Engine engine(g2, Sequence({Copy(sIn, x), Copy(x, sOut)}));
  engine.load(device);

  std::vector<std::string> log;
  engine.connectStreamToCallback("in", std::unique_ptr<Counter>(new Counter(log)));
  std::vector<std::vector<float>> received;
  engine.connectStreamToCallback("out", [&](void *p) {
    const float *f = static_cast<const float *>(p);
    received.push_back(std::vector<float>(f, f + 4));
  });
  for (int run = 0; run < 4; ++run) engine.run(0);
  engine.connectStreamToCallback("in", std::unique_ptr<Counter>(new Counter(log)));
  for (const std::string &l : log) std::cout << l << "\n";
  for (const auto &r : received) std::cout << "received " << r[0] << " " << r[1] << " " << r[2] << " " << r[3] << "\n";
  return 0;
}
