// Devices and targets: the DeviceManager's simulated M2000 (four IPUs: single devices, pairs and
// the whole), attach and detach, IPUModel versions and fields, the Target's figures.
#include <poplar/DeviceManager.hpp>
#include <poplar/Engine.hpp>
#include <poplar/IPUModel.hpp>

#include <algorithm>
#include <iostream>

using namespace poplar;

void describe(const Target &t) {
  std::cout << "  " << t.getTargetArchString() << ": " << t.getNumIPUs() << " IPU(s) x " << t.getTilesPerIPU()
            << " tiles = " << t.getNumTiles() << ", " << t.getNumWorkerContexts() << " workers, " << t.getBytesPerTile()
            << " bytes per tile, " << t.getMemoryBytes() << " in all\n";
  std::cout << "  exchange " << t.getExchangeBytesPerCycle() << " bytes/cycle, clock " << t.getTileClockFrequency()
            << " Hz, float vector " << t.getFloatVectorWidth() << ", half vector " << t.getHalfVectorWidth()
            << ", sizeof(HALF) " << t.getTypeSize(HALF) << ", vector width of INT " << t.getVectorWidth(INT)
            << ", rpt max " << t.getRptCountMax() << "\n";
}

int main() {
  DeviceManager manager = DeviceManager::createDeviceManager();
  std::cout << "devices: " << manager.getNumDevices() << "\n";
  for (unsigned n : {1u, 2u, 4u, 8u}) {
    std::vector<Device> devices = manager.getDevices(TargetType::IPU, n);
    std::cout << n << "-IPU devices:";
    for (const Device &d : devices) std::cout << " " << d.getId();
    std::cout << "\n";
  }
  std::vector<Device> devices = manager.getDevices(TargetType::IPU, 1);
  auto it = std::find_if(devices.begin(), devices.end(), [](Device &d) { return d.attach(); });
  Device device = std::move(*it);
  std::cout << "attached device " << device.getId() << ": " << device.isAttached() << "\n";
  Device again = manager.getDevice(device.getId());
  std::cout << "attach it again: " << again.attach() << "\n";
  Device pair = manager.getDevice(4);
  std::cout << "attach the pair holding it: " << pair.attach() << "\n";
  Device other = manager.getDevice(5);
  std::cout << "attach the other pair: " << other.attach() << "\n";
  std::vector<unsigned> children = manager.getChildDeviceIds(6);
  std::cout << "children of device 6:";
  for (unsigned c : children) std::cout << " " << c;
  std::cout << "\n";
  describe(device.getTarget());
  describe(pair.getTarget());

  // A program on the attached hardware-style device.
  Graph graph(device);
  Tensor x = graph.addConstant<int>(INT, {2}, {4, 2});
  graph.setTileMapping(x, 1471);
  Engine engine(graph, program::PrintTensor("on device " + std::to_string(device.getId()), x));
  engine.load(device);
  engine.run(0);
  device.detach();
  try {
    engine.run(0);
  } catch (const poplar_error &e) {
    std::cout << e.what() << "\n";
  }
  std::cout << "after detach, attach the pair: " << pair.attach() << "\n";
  try {
    Engine e2(graph, program::Sequence());
    e2.load(device);
  } catch (const poplar_error &e) {
    std::cout << e.what() << "\n";
  }

  IPUModel m2;
  IPUModel m1("ipu1");
  std::cout << "IPUModel ipu2: " << m2.tilesPerIPU << " tiles, " << m2.memoryBytesPerTile << " bytes\n";
  std::cout << "IPUModel ipu1: " << m1.tilesPerIPU << " tiles, " << m1.memoryBytesPerTile << " bytes\n";
  describe(m1.createDevice().getTarget());
  m2.tilesPerIPU = 16;
  m2.memoryBytesPerTile = 256 * 1024;
  m2.tileClockFrequency = 1.85e9;
  describe(m2.createDevice().getTarget());
  try {
    IPUModel bad("ipu9");
  } catch (const poplar_error &e) {
    std::cout << e.type << ": " << e.what() << "\n";
  }
  try {
    m2.numWorkerContexts = 4;
    m2.createDevice();
  } catch (const poplar_error &e) {
    std::cout << e.type << ": " << e.what() << "\n";
  }
  return 0;
}
