// ipusim's Poplar SDK: callbacks that fill or take a stream's data at each transfer.
#ifndef IPUSIM_POPLAR_STREAMCALLBACK_HPP
#define IPUSIM_POPLAR_STREAMCALLBACK_HPP

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace poplar {

class StreamCallbackBase {
public:
  enum class Result { Success, NotAvailable };
  virtual ~StreamCallbackBase() {}
  /// The transfer of the buffer given to fetch or a successful prefetch is finished.
  virtual void complete() = 0;
  /// A prefetched buffer was thrown away (the stream was reconnected).
  virtual void invalidatePrefetched() {}
};

class StreamCallback : public StreamCallbackBase {
public:
  /// Host to device only: fill p ahead of the transfer if data is available now.
  virtual Result prefetch(void *p) = 0;
  /// Fill (host to device) or consume (device to host) p for the transfer now.
  virtual void fetch(void *p) = 0;
};

class LegacyStreamCallback : public StreamCallback {
public:
  Result prefetch(void *) final override { return Result::NotAvailable; }
  void invalidatePrefetched() final override {}
  void complete() final override {}
};

/// What connectStreamToCallback takes: a StreamCallback, or a function of the buffer pointer.
class StreamCallbackHandle {
  class Function : public LegacyStreamCallback {
  public:
    explicit Function(std::function<void(void *)> f) : f_(std::move(f)) {}
    void fetch(void *p) override { f_(p); }

  private:
    std::function<void(void *)> f_;
  };

public:
  template <class CallbackImpl,
            typename = typename std::enable_if<std::is_base_of<StreamCallback, CallbackImpl>::value>::type>
  StreamCallbackHandle(std::unique_ptr<CallbackImpl> f) : callback_(std::move(f)) {}
  template <class F, typename = typename std::enable_if<
                         !std::is_convertible<F, std::unique_ptr<StreamCallback>>::value &&
                         std::is_convertible<F, std::function<void(void *)>>::value>::type>
  StreamCallbackHandle(F &&f) : callback_(new Function(std::function<void(void *)>(std::forward<F>(f)))) {}
  StreamCallbackHandle(const StreamCallbackHandle &) = delete;
  StreamCallbackHandle(StreamCallbackHandle &&) = default;

  // ipusim (internal).
  std::unique_ptr<StreamCallback> release() { return std::move(callback_); }

private:
  std::unique_ptr<StreamCallback> callback_;
};

} // namespace poplar

#endif
