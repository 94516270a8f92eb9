#include "ucx/ucx_op.hpp"

namespace commbench::ucx {

void Op::on_send(void*, ucs_status_t status, void* user_data) noexcept {
  static_cast<Op*>(user_data)->complete(status);
}

void Op::on_tag_recv(void*, ucs_status_t status, const ucp_tag_recv_info_t* info,
                     void* user_data) noexcept {
  auto* op = static_cast<Op*>(user_data);
  if (info) {
    op->length = info->length;
    op->sender_tag = info->sender_tag;
  }
  op->complete(status);
}

void Op::on_stream_recv(void*, ucs_status_t status, size_t length, void* user_data) noexcept {
  auto* op = static_cast<Op*>(user_data);
  op->length = length;
  op->complete(status);
}

}  // namespace commbench::ucx
