// SPDX-License-Identifier: GPL-2.0
/* Checks of a PCI function's description (lib/pci.h). */
#include "lib/pci.h"

static bool pci_bar_size_ok(uint64_t size)
{
	return !size || (size >= PCI_BAR_MIN && !(size & (size - 1)));
}

bool pci_func_ok(const struct pci_func *f)
{
	if (!f || !f->ops || !f->ops->cfg_read || !f->ops->cfg_write ||
	    !f->ops->bar_read || !f->ops->bar_write)
		return false;
	if (f->cap_ptr && (f->cap_ptr < PCI_HEADER_END || (f->cap_ptr & 3)))
		return false;
	for (unsigned int i = 0; i < PCI_NR_BARS; i++) {
		if (!pci_bar_size_ok(f->bar_size[i]))
			return false;
		if (!f->bar64[i])
			continue;
		if (i + 1 == PCI_NR_BARS || f->bar_size[i + 1] ||
		    f->bar64[i + 1])
			return false;
		i++; /* the upper half */
	}
	return true;
}
