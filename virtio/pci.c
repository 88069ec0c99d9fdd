// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-pci modern: capabilities in configuration space and the register
 * decode of BAR 0, in front of the shared virtio core.  See pci.h.
 */
#include <errno.h>
#include <string.h>

#include "lib/log.h"
#include "virtio/pci.h"

/* Offsets of the PCI configuration access capability's fields. */
#define PCICFG_BAR (VIRTIO_PCI_CAP_PCICFG + 4)
#define PCICFG_OFFSET (VIRTIO_PCI_CAP_PCICFG + 8)
#define PCICFG_LENGTH (VIRTIO_PCI_CAP_PCICFG + 12)
#define PCICFG_DATA (VIRTIO_PCI_CAP_PCICFG + 16)

static uint8_t *vpci_cfg(struct virtio_pci *vp, uint32_t off)
{
	return &vp->cfg[off - PCI_HEADER_END];
}

/* A vendor capability (struct virtio_pci_cap) at off, cap_len bytes. */
static void vpci_cap(struct virtio_pci *vp, uint32_t off, uint8_t next,
		     uint8_t len, uint8_t type, uint32_t bar_off,
		     uint32_t bar_len)
{
	uint8_t *p = vpci_cfg(vp, off);

	p[0] = PCI_CAP_ID_VNDR;
	p[1] = next;
	p[2] = len;
	p[3] = type;
	p[4] = type == VIRTIO_PCI_CAP_PCI_CFG ? 0 : VIRTIO_PCI_BAR;
	pci_put(p + 8, 4, bar_off);
	pci_put(p + 12, 4, bar_len);
}

/* The MSI-X capability: table and PBA in BAR 0. */
static void vpci_msix_cap(struct virtio_pci *vp)
{
	uint8_t *p = vpci_cfg(vp, VIRTIO_PCI_CAP_MSIX);

	p[0] = PCI_CAP_ID_MSIX;
	p[1] = 0;
	pci_put(p + 2, 2, vp->nr_vectors - 1);
	pci_put(p + 4, 4, VIRTIO_PCI_MSIX_TABLE | VIRTIO_PCI_BAR);
	pci_put(p + 8, 4, VIRTIO_PCI_MSIX_PBA | VIRTIO_PCI_BAR);
}

static void vpci_caps(struct virtio_pci *vp)
{
	uint32_t cfg_size = vp->core->dev.config_size;
	uint8_t isr_next =
		cfg_size ? VIRTIO_PCI_CAP_DEVICE : VIRTIO_PCI_CAP_PCICFG;

	vpci_cap(vp, VIRTIO_PCI_CAP_COMMON, VIRTIO_PCI_CAP_NOTIFY, 16,
		 VIRTIO_PCI_CAP_COMMON_CFG, VIRTIO_PCI_COMMON_OFF,
		 VIRTIO_PCI_COMMON_LEN);
	/* notify_off_multiplier (at +16) stays 0: one address for all */
	vpci_cap(vp, VIRTIO_PCI_CAP_NOTIFY, VIRTIO_PCI_CAP_ISR, 20,
		 VIRTIO_PCI_CAP_NOTIFY_CFG, VIRTIO_PCI_NOTIFY_OFF,
		 VIRTIO_PCI_NOTIFY_LEN);
	vpci_cap(vp, VIRTIO_PCI_CAP_ISR, isr_next, 16, VIRTIO_PCI_CAP_ISR_CFG,
		 VIRTIO_PCI_ISR_OFF, 1);
	if (cfg_size)
		vpci_cap(vp, VIRTIO_PCI_CAP_DEVICE, VIRTIO_PCI_CAP_PCICFG, 16,
			 VIRTIO_PCI_CAP_DEVICE_CFG, VIRTIO_PCI_DEVICE_OFF,
			 cfg_size);
	vpci_cap(vp, VIRTIO_PCI_CAP_PCICFG,
		 vp->nr_vectors ? VIRTIO_PCI_CAP_MSIX : 0, 20,
		 VIRTIO_PCI_CAP_PCI_CFG, 0, 0);
	if (vp->nr_vectors)
		vpci_msix_cap(vp);
}

/* --- MSI-X (core lock held) ------------------------------------------- */

/* Masked, or no bus mastering (an MSI is a memory write): pending. */
static bool vpci_masked(const struct virtio_pci *vp, unsigned int v)
{
	return !vp->bus_master || (vp->msix_ctrl & PCI_MSIX_FLAGS_MASKALL) ||
	       (vp->table[v].ctrl & PCI_MSIX_ENTRY_MASKED);
}

/* Where a queue's vector goes may have changed: tell the hook. */
static void vpci_msix_changed(const struct virtio_pci *vp)
{
	if (vp->hook.changed)
		vp->hook.changed(vp->hook.opaque);
}

/* Send vector v's message, or keep it pending while it is masked. */
static void vpci_msix_send(struct virtio_pci *vp, unsigned int v)
{
	const struct virtio_pci_msix_entry *e = &vp->table[v];

	if (vpci_masked(vp, v)) {
		vp->pending |= 1u << v;
		return;
	}
	vp->pending &= ~(1u << v);
	vp->msgs_sent++;
	vp->sink.send(vp->sink.opaque, e->addr, e->data);
}

/* After an unmask: the pending messages that may go now. */
static void vpci_msix_flush(struct virtio_pci *vp)
{
	if (!(vp->msix_ctrl & PCI_MSIX_FLAGS_ENABLE))
		return;
	for (unsigned int v = 0; v < vp->nr_vectors; v++)
		if ((vp->pending & (1u << v)) && !vpci_masked(vp, v))
			vpci_msix_send(vp, v);
}

/* struct virtio_msi's signal: the vector of queue q or of the config. */
static bool vpci_msi_signal(void *opaque, unsigned int q)
{
	struct virtio_pci *vp = opaque;
	uint16_t v;

	if (!(vp->msix_ctrl & PCI_MSIX_FLAGS_ENABLE))
		return false;
	if (q == VIRTIO_MSI_CONFIG)
		v = vp->config_vector;
	else
		v = q < VIRTIO_CORE_MAX_QUEUES ? vp->queue_vector[q] :
						 VIRTIO_PCI_NO_VECTOR;
	if (v < vp->nr_vectors)
		vpci_msix_send(vp, v);
	return true;
}

/* A vector the driver chose: NO_VECTOR when there is no such entry. */
static uint16_t vpci_vector(const struct virtio_pci *vp, uint64_t val)
{
	return val < vp->nr_vectors ? val : VIRTIO_PCI_NO_VECTOR;
}

static void vpci_msix_ctrl_locked(struct virtio_pci *vp, uint16_t ctrl)
{
	bool was = vp->msix_ctrl & PCI_MSIX_FLAGS_ENABLE;

	vp->msix_ctrl = ctrl & (PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	/* INTx is off while MSI-X is on: drop what the line held. */
	if (!was && (vp->msix_ctrl & PCI_MSIX_FLAGS_ENABLE))
		(void)virtio_core_isr_take_locked(vp->core);
	vpci_msix_flush(vp);
	vpci_msix_changed(vp);
}

static uint32_t vpci_table_read(const struct virtio_pci *vp, uint64_t off)
{
	const struct virtio_pci_msix_entry *e =
		&vp->table[off / VIRTIO_PCI_MSIX_ENTRY];

	switch (off % VIRTIO_PCI_MSIX_ENTRY) {
	case 0:
		return e->addr;
	case 4:
		return e->addr >> 32;
	case 8:
		return e->data;
	}
	return e->ctrl;
}

static void vpci_table_write(struct virtio_pci *vp, uint64_t off, uint32_t val)
{
	struct virtio_pci_msix_entry *e =
		&vp->table[off / VIRTIO_PCI_MSIX_ENTRY];

	switch (off % VIRTIO_PCI_MSIX_ENTRY) {
	case 0:
		virtio_core_set_half(&e->addr, false, val);
		break;
	case 4:
		virtio_core_set_half(&e->addr, true, val);
		break;
	case 8:
		e->data = val;
		break;
	default:
		e->ctrl = val & PCI_MSIX_ENTRY_MASKED;
		vpci_msix_flush(vp);
	}
	vpci_msix_changed(vp);
}

/* --- common configuration ---------------------------------------------- */

/* The width of the common field at off (0: no field starts there). */
static unsigned int vpci_common_width(uint64_t off)
{
	if (off < VIRTIO_PCI_MSIX_CONFIG)
		return off % 4 ? 0 : 4;
	if (off == VIRTIO_PCI_STATUS || off == VIRTIO_PCI_CFG_GENERATION)
		return 1;
	if (off < VIRTIO_PCI_Q_DESC)
		return off % 2 ? 0 : 2;
	if (off < VIRTIO_PCI_COMMON_LEN)
		return off % 4 ? 0 : 4; /* 64-bit fields in halves */
	return 0;
}

/* Does a len-byte access at off hit exactly one field (or a 64-bit one)? */
static bool vpci_common_ok(uint64_t off, unsigned int len)
{
	unsigned int w = vpci_common_width(off);

	if (w &&
	    (len == w || (off >= VIRTIO_PCI_Q_DESC && len == 8 && !(off % 8))))
		return true;
	pr_guest_once("virtio-pci: %u-byte common access at %#llx", len,
		      (unsigned long long)off);
	return false;
}

static uint64_t vpci_queue_addr(const struct virtqueue *vq, uint64_t field)
{
	if (field == VIRTIO_PCI_Q_DESC)
		return vq->desc_gpa;
	if (field == VIRTIO_PCI_Q_AVAIL)
		return vq->avail_gpa;
	return vq->used_gpa;
}

static uint64_t vpci_queue_read(struct virtio_pci *vp, uint64_t off)
{
	struct virtqueue *vq = virtio_core_sel_queue(vp->core);

	if (!vq)
		return 0;
	switch (off) {
	case VIRTIO_PCI_Q_SIZE:
		return vq->num;
	case VIRTIO_PCI_Q_MSIX:
		return vp->queue_vector[vp->core->queue_sel];
	case VIRTIO_PCI_Q_ENABLE:
		return vq->ready;
	case VIRTIO_PCI_Q_NOFF:
		return 0;
	}
	return vpci_queue_addr(vq, off & ~7ULL) >> (off & 4 ? 32 : 0);
}

static uint64_t vpci_common_read(struct virtio_pci *vp, uint64_t off)
{
	struct virtio_core *c = vp->core;

	switch (off) {
	case VIRTIO_PCI_DFSELECT:
		return c->device_features_sel;
	case VIRTIO_PCI_DF:
		return virtio_core_device_features(c);
	case VIRTIO_PCI_GFSELECT:
		return c->driver_features_sel;
	case VIRTIO_PCI_GF:
		return virtio_core_driver_features(c);
	case VIRTIO_PCI_MSIX_CONFIG:
		return vp->config_vector;
	case VIRTIO_PCI_NUM_QUEUES:
		return c->dev.num_queues;
	case VIRTIO_PCI_STATUS:
		return c->status;
	case VIRTIO_PCI_CFG_GENERATION:
		return c->config_generation;
	case VIRTIO_PCI_Q_SELECT:
		return c->queue_sel;
	}
	return vpci_queue_read(vp, off);
}

/* A write of len bytes (4 or 8 for a 64-bit field) at off. */
static void vpci_queue_addr_write(struct virtio_core *c, uint64_t off,
				  unsigned int len, uint64_t val)
{
	struct virtqueue *vq = virtio_core_queue_writable(c);
	uint64_t *reg;

	if (!vq)
		return;
	switch (off & ~7ULL) {
	case VIRTIO_PCI_Q_DESC:
		reg = &vq->desc_gpa;
		break;
	case VIRTIO_PCI_Q_AVAIL:
		reg = &vq->avail_gpa;
		break;
	default:
		reg = &vq->used_gpa;
		break;
	}
	if (len == 8)
		*reg = val;
	else
		virtio_core_set_half(reg, off & 4, val);
}

static void vpci_queue_write(struct virtio_pci *vp, uint64_t off,
			     unsigned int len, uint64_t val)
{
	struct virtio_core *c = vp->core;
	struct virtqueue *vq;

	switch (off) {
	case VIRTIO_PCI_Q_SIZE:
		vq = virtio_core_queue_writable(c);
		if (vq)
			vq->num = val;
		return;
	case VIRTIO_PCI_Q_MSIX:
		if (virtio_core_sel_queue(c))
			vp->queue_vector[c->queue_sel] = vpci_vector(vp, val);
		vpci_msix_changed(vp);
		return;
	case VIRTIO_PCI_Q_ENABLE:
		virtio_core_queue_enable_locked(c, val);
		return;
	case VIRTIO_PCI_Q_NOFF:
		pr_guest_once("virtio-pci: write of queue_notify_off");
		return;
	}
	vpci_queue_addr_write(c, off, len, val);
}

static void vpci_common_write(struct virtio_pci *vp, uint64_t off,
			      unsigned int len, uint64_t val)
{
	struct virtio_core *c = vp->core;

	switch (off) {
	case VIRTIO_PCI_DFSELECT:
		c->device_features_sel = val;
		return;
	case VIRTIO_PCI_GFSELECT:
		c->driver_features_sel = val;
		return;
	case VIRTIO_PCI_GF:
		virtio_core_driver_features_write(c, val);
		return;
	case VIRTIO_PCI_MSIX_CONFIG:
		vp->config_vector = vpci_vector(vp, val);
		return;
	case VIRTIO_PCI_STATUS:
		virtio_core_status_write_locked(c, val);
		return;
	case VIRTIO_PCI_Q_SELECT:
		c->queue_sel = val;
		return;
	case VIRTIO_PCI_DF:
	case VIRTIO_PCI_NUM_QUEUES:
	case VIRTIO_PCI_CFG_GENERATION:
		pr_guest_once("virtio-pci: write of read-only %#llx",
			      (unsigned long long)off);
		return;
	}
	vpci_queue_write(vp, off, len, val);
}

/* --- BAR 0 ----------------------------------------------------------- */

enum vpci_region {
	VPCI_BAD,
	VPCI_COMMON,
	VPCI_ISR,
	VPCI_DEVICE,
	VPCI_NOTIFY,
	VPCI_TABLE,
	VPCI_PBA,
};

/* MSI-X table and PBA: aligned 4 or 8-byte accesses inside them. */
static enum vpci_region vpci_msix_region(const struct virtio_pci *vp,
					 uint64_t off, unsigned int len)
{
	uint64_t t = off - VIRTIO_PCI_MSIX_TABLE, p = off - VIRTIO_PCI_MSIX_PBA;

	if (!vp->nr_vectors || (len != 4 && len != 8) || off % len)
		return VPCI_BAD;
	if (off >= VIRTIO_PCI_MSIX_TABLE &&
	    t < (uint64_t)vp->nr_vectors * VIRTIO_PCI_MSIX_ENTRY)
		return VPCI_TABLE;
	if (off >= VIRTIO_PCI_MSIX_PBA && p < 8)
		return VPCI_PBA;
	return VPCI_BAD;
}

/* Which region a len-byte access at BAR offset off hits, if it is valid. */
static enum vpci_region vpci_region(const struct virtio_pci *vp, uint64_t off,
				    unsigned int len)
{
	uint32_t cfg = vp->core->dev.config_size;
	uint64_t d = off - VIRTIO_PCI_DEVICE_OFF;
	enum vpci_region r;

	if (off < VIRTIO_PCI_COMMON_LEN)
		return vpci_common_ok(off, len) ? VPCI_COMMON : VPCI_BAD;
	if (off == VIRTIO_PCI_ISR_OFF && len <= 4)
		return VPCI_ISR;
	if (off >= VIRTIO_PCI_DEVICE_OFF && d < cfg && len <= 4 && len != 3 &&
	    len <= cfg - d)
		return VPCI_DEVICE;
	if (off == VIRTIO_PCI_NOTIFY_OFF && (len == 2 || len == 4))
		return VPCI_NOTIFY;
	r = vpci_msix_region(vp, off, len);
	if (r == VPCI_BAD)
		pr_guest_once("virtio-pci: %u-byte access at BAR offset %#llx",
			      len, (unsigned long long)off);
	return r;
}

/* Table or PBA, in 4-byte pieces. */
static void vpci_msix_read(struct virtio_pci *vp, enum vpci_region r,
			   uint64_t off, void *data, unsigned int len)
{
	uint8_t *p = data;

	for (unsigned int i = 0; i < len; i += 4) {
		uint32_t v =
			r == VPCI_PBA ?
				(off + i) % 8 ? 0 : vp->pending :
				vpci_table_read(
					vp, off + i - VIRTIO_PCI_MSIX_TABLE);

		mmio_data_put(p + i, 4, v);
	}
}

static void vpci_bar_read_locked(struct virtio_pci *vp, uint64_t off,
				 void *data, unsigned int len)
{
	struct virtio_core *c = vp->core;
	enum vpci_region r = vpci_region(vp, off, len);

	switch (r) {
	case VPCI_COMMON:
		mmio_data_put(data, len, vpci_common_read(vp, off));
		return;
	case VPCI_ISR:
		mmio_data_put(data, len, virtio_core_isr_take_locked(c));
		return;
	case VPCI_DEVICE:
		if (c->dev.ops->config_read)
			c->dev.ops->config_read(c->dev.opaque,
						off - VIRTIO_PCI_DEVICE_OFF,
						data, len);
		return;
	case VPCI_TABLE:
	case VPCI_PBA:
		vpci_msix_read(vp, r, off, data, len);
		return;
	case VPCI_NOTIFY:
	case VPCI_BAD:
		return;
	}
}

static void vpci_device_write(struct virtio_core *c, uint64_t off,
			      const void *data, unsigned int len)
{
	if (c->dev.ops->config_write)
		c->dev.ops->config_write(
			c->dev.opaque, off - VIRTIO_PCI_DEVICE_OFF, data, len);
	else
		pr_guest_once("virtio-pci: write to read-only config");
}

static void vpci_bar_write_locked(struct virtio_pci *vp, uint64_t off,
				  const void *data, unsigned int len)
{
	const uint8_t *p = data;

	switch (vpci_region(vp, off, len)) {
	case VPCI_COMMON:
		vpci_common_write(vp, off, len, mmio_data_get(data, len));
		return;
	case VPCI_DEVICE:
		vpci_device_write(vp->core, off, data, len);
		return;
	case VPCI_NOTIFY:
		virtio_core_kick_locked(vp->core, mmio_data_get(data, 2));
		return;
	case VPCI_TABLE:
		for (unsigned int i = 0; i < len; i += 4)
			vpci_table_write(vp, off + i - VIRTIO_PCI_MSIX_TABLE,
					 mmio_data_get(p + i, 4));
		return;
	case VPCI_ISR:
	case VPCI_PBA:
		pr_guest_once("virtio-pci: write to a read-only register");
		return;
	case VPCI_BAD:
		return;
	}
}

static void vpci_bar_read(void *opaque, unsigned int bar, uint64_t off,
			  void *data, unsigned int len)
{
	struct virtio_pci *vp = opaque;

	memset(data, 0, len);
	if (bar != VIRTIO_PCI_BAR)
		return;
	virtio_core_lock(vp->core);
	vpci_bar_read_locked(vp, off, data, len);
	virtio_core_unlock(vp->core);
}

static void vpci_bar_write(void *opaque, unsigned int bar, uint64_t off,
			   const void *data, unsigned int len)
{
	struct virtio_pci *vp = opaque;

	if (bar != VIRTIO_PCI_BAR)
		return;
	virtio_core_lock(vp->core);
	vpci_bar_write_locked(vp, off, data, len);
	virtio_core_unlock(vp->core);
}

/* --- configuration space ------------------------------------------------ */

/*
 * The PCI configuration access capability's window: BAR 0, length 1, 2
 * or 4, offset aligned to it (§4.1.4.9); false otherwise.
 */
static bool vpci_cfgcap_window(struct virtio_pci *vp, uint64_t *off,
			       unsigned int *len)
{
	uint8_t bar = *vpci_cfg(vp, PCICFG_BAR);

	*off = pci_get(vpci_cfg(vp, PCICFG_OFFSET), 4);
	*len = pci_get(vpci_cfg(vp, PCICFG_LENGTH), 4);
	if (bar == VIRTIO_PCI_BAR && (*len == 1 || *len == 2 || *len == 4) &&
	    !(*off % *len) && *off < VIRTIO_PCI_BAR_SIZE)
		return true;
	pr_guest_once("virtio-pci: configuration access window bar %u "
		      "offset %#llx length %u",
		      bar, (unsigned long long)*off, *len);
	return false;
}

static uint32_t vpci_cfg_read(void *opaque, uint32_t off, unsigned int len)
{
	struct virtio_pci *vp = opaque;
	uint8_t data[4] = { 0 };
	uint64_t boff;
	unsigned int blen;

	if (off >= PCICFG_DATA && off < PCICFG_DATA + 4) {
		if (vpci_cfgcap_window(vp, &boff, &blen))
			vpci_bar_read(vp, VIRTIO_PCI_BAR, boff, data, blen);
		memcpy(vpci_cfg(vp, PCICFG_DATA), data, 4);
	}
	return pci_get(vpci_cfg(vp, off), len);
}

/* Bytes of the capabilities the driver may write: bar, offset, length. */
static bool vpci_cfg_writable(uint32_t off)
{
	return off == PCICFG_BAR ||
	       (off >= PCICFG_OFFSET && off < PCICFG_DATA + 4);
}

/* A write that touches the MSI-X message control's upper byte. */
static void vpci_msix_ctrl_write(struct virtio_pci *vp, uint32_t off,
				 unsigned int len, uint32_t val)
{
	uint32_t hi = VIRTIO_PCI_CAP_MSIX + 3;
	uint8_t *ctrl = vpci_cfg(vp, hi);

	if (!vp->nr_vectors || off > hi || off + len <= hi)
		return;
	*ctrl = (val >> (8 * (hi - off))) & 0xc0;
	virtio_core_lock(vp->core);
	vpci_msix_ctrl_locked(vp, pci_get(vpci_cfg(vp, hi - 1), 2));
	virtio_core_unlock(vp->core);
}

static void vpci_cfg_write(void *opaque, uint32_t off, unsigned int len,
			   uint32_t val)
{
	struct virtio_pci *vp = opaque;
	uint8_t data[4];
	uint64_t boff;
	unsigned int blen;

	for (unsigned int i = 0; i < len; i++)
		if (vpci_cfg_writable(off + i))
			*vpci_cfg(vp, off + i) = val >> (8 * i);
	vpci_msix_ctrl_write(vp, off, len, val);
	if (off + len <= PCICFG_DATA || off >= PCICFG_DATA + 4)
		return;
	if (!vpci_cfgcap_window(vp, &boff, &blen))
		return;
	memcpy(data, vpci_cfg(vp, PCICFG_DATA), 4);
	vpci_bar_write(vp, VIRTIO_PCI_BAR, boff, data, blen);
}

/* Core lock held: MSI-X off, every vector masked and unassigned. */
static void vpci_msix_reset(struct virtio_pci *vp)
{
	vp->msix_ctrl = 0;
	vp->pending = 0;
	vp->config_vector = VIRTIO_PCI_NO_VECTOR;
	for (unsigned int q = 0; q < VIRTIO_CORE_MAX_QUEUES; q++)
		vp->queue_vector[q] = VIRTIO_PCI_NO_VECTOR;
	for (unsigned int v = 0; v < VIRTIO_PCI_MSIX_MAX; v++)
		vp->table[v] = (struct virtio_pci_msix_entry){
			.ctrl = PCI_MSIX_ENTRY_MASKED
		};
	if (vp->nr_vectors)
		*vpci_cfg(vp, VIRTIO_PCI_CAP_MSIX + 3) = 0;
	vpci_msix_changed(vp);
}

static void vpci_reset(void *opaque)
{
	struct virtio_pci *vp = opaque;

	memset(vpci_cfg(vp, PCICFG_BAR), 0, 1);
	memset(vpci_cfg(vp, PCICFG_OFFSET), 0, 12);
	virtio_core_lock(vp->core);
	vpci_msix_reset(vp);
	virtio_core_reset_locked(vp->core);
	virtio_core_unlock(vp->core);
}

/* The bridge: Bus Master Enable changed (its cfg_lock held). */
static void vpci_bus_master(void *opaque, bool on)
{
	struct virtio_pci *vp = opaque;

	virtio_core_lock(vp->core);
	vp->bus_master = on;
	virtio_core_set_dma_locked(vp->core, on);
	vpci_msix_flush(vp);
	vpci_msix_changed(vp);
	virtio_core_unlock(vp->core);
}

static const struct pci_func_ops vpci_ops = {
	.cfg_read = vpci_cfg_read,
	.cfg_write = vpci_cfg_write,
	.bar_read = vpci_bar_read,
	.bar_write = vpci_bar_write,
	.reset = vpci_reset,
	.bus_master = vpci_bus_master,
};

/* PCI class codes Linux and lspci expect for each device type. */
static uint32_t vpci_class(uint32_t device_id)
{
	switch (device_id) {
	case 1: /* net: network controller, ethernet */
		return 0x020000;
	case 2: /* block: mass storage, SCSI */
		return 0x010000;
	case 3: /* console: communication controller, other */
		return 0x078000;
	}
	return 0xff0000; /* unclassified */
}

int virtio_pci_init(struct virtio_pci *vp, struct virtio_core *core,
		    const struct virtio_pci_msi_sink *sink)
{
	uint32_t id = core->dev.device_id;

	if (!id || id > 0xffff - VIRTIO_PCI_DEVICE_BASE ||
	    core->dev.config_size >
		    VIRTIO_PCI_NOTIFY_OFF - VIRTIO_PCI_DEVICE_OFF)
		return -EINVAL;
	memset(vp, 0, sizeof(*vp));
	vp->core = core;
	vp->func = (struct pci_func){
		.name = core->dev.name,
		.vendor = VIRTIO_PCI_VENDOR,
		.device = VIRTIO_PCI_DEVICE_BASE + id,
		.subsys_vendor = VIRTIO_PCI_VENDOR,
		.subsys = id,
		.revision = VIRTIO_PCI_REVISION,
		.class_code = vpci_class(id),
		.cap_ptr = VIRTIO_PCI_CAP_COMMON,
		.intx = true,
		.bar_size = { [VIRTIO_PCI_BAR] = VIRTIO_PCI_BAR_SIZE },
		.bar64 = { [VIRTIO_PCI_BAR] = true },
		.ops = &vpci_ops,
		.opaque = vp,
	};
	if (sink && sink->send) {
		vp->sink = *sink;
		vp->nr_vectors = core->dev.num_queues + 1;
		core->msi = (struct virtio_msi){ vpci_msi_signal, vp };
	}
	vpci_msix_reset(vp);
	vpci_caps(vp);
	/* Bus mastering is off at power-on: no DMA until the driver sets it. */
	virtio_core_lock(core);
	virtio_core_set_dma_locked(core, false);
	virtio_core_unlock(core);
	return 0;
}

void virtio_pci_set_msix_hook(struct virtio_pci *vp,
			      const struct virtio_pci_msix_hook *hook)
{
	virtio_core_lock(vp->core);
	vp->hook = *hook;
	virtio_core_unlock(vp->core);
}

enum virtio_pci_qmsi virtio_pci_queue_msi(const struct virtio_pci *vp,
					  unsigned int q, uint64_t *addr,
					  uint32_t *data)
{
	uint16_t v;

	if (!vp->nr_vectors)
		return VIRTIO_PCI_QMSI_NONE;
	if (!(vp->msix_ctrl & PCI_MSIX_FLAGS_ENABLE))
		return VIRTIO_PCI_QMSI_OFF;
	v = q < VIRTIO_CORE_MAX_QUEUES ? vp->queue_vector[q] :
					 VIRTIO_PCI_NO_VECTOR;
	if (v >= vp->nr_vectors)
		return VIRTIO_PCI_QMSI_NO_VECTOR;
	if (vpci_masked(vp, v))
		return VIRTIO_PCI_QMSI_MASKED;
	*addr = vp->table[v].addr;
	*data = vp->table[v].data;
	return VIRTIO_PCI_QMSI_OK;
}
