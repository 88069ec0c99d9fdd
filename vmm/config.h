/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The VM configuration: filled by the run command line (vmm/cmd/run_cli.c),
 * read by the boot steps.  Data flows one way: CLI -> config -> boot steps.
 */
#ifndef RVKVM_CONFIG_H
#define RVKVM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vmm/isa.h"

enum console_type {
	CONSOLE_SERIAL, /* 8250 UART, console=ttyS0 */
	CONSOLE_HV,	/* SBI console (v0.1 putchar/getchar, DBCN), hvc0 */
	CONSOLE_VIRTIO, /* virtio-console, hvc0 (not supported yet) */
};

/* --irqchip: which interrupt controller the guest gets. */
enum irqchip_choice {
	IRQCHIP_AUTO,	     /* aia, else kernel-plic, else plic */
	IRQCHIP_AIA,	     /* KVM's in-kernel AIA (APLIC + IMSIC), irqfd */
	IRQCHIP_PLIC,	     /* a PLIC emulated in lkvm */
	IRQCHIP_KERNEL_PLIC, /* KVM's in-kernel PLIC (kernel-patches/), irqfd */
};

/*
 * --virtio-transport and -n ...,trans=: how virtio devices are reached.
 * The command line resolves the default to pci (kvmtool's); a NIC
 * without trans= takes the global one.
 */
enum virtio_transport {
	VIRTIO_TRANSPORT_DEFAULT,
	VIRTIO_TRANSPORT_PCI,  /* virtio-pci modern behind a PCIe bridge */
	VIRTIO_TRANSPORT_MMIO, /* virtio-mmio version 2 */
};

/* --io-notify: where the disks' queue notifications are served. */
enum io_notify {
	IO_NOTIFY_AUTO,	    /* vcpu without a spare host CPU, else iothread */
	IO_NOTIFY_IOTHREAD, /* always the I/O thread, through ioeventfds */
	IO_NOTIFY_VCPU,	    /* the vCPU's exit at depth 1, else iothread */
};

#define CONFIG_MAX_CPUS 32
/* The largest guest RAM (-m); the board has room for it above RAM base. */
#define CONFIG_RAM_MAX (512ULL << 30)
#define CONFIG_MAX_DISKS 4
#define CONFIG_MAX_NICS 2
#define CONFIG_IFNAME_MAX 16 /* IFNAMSIZ */
#define CONFIG_IP_MAX 16     /* "255.255.255.255" */
#define CONFIG_PATH_MAX 4096

/* -n mode=: what backs a NIC. */
enum nic_mode {
	NIC_MODE_NONE, /* mode=none: no NIC at all (not even the default) */
	NIC_MODE_TAP,  /* a tap device (kvmtool's default for -n) */
	NIC_MODE_USER, /* user-mode networking: a passt process */
};

/* Port forwards one user-mode NIC may have (fwd=, vmm/netopt.h). */
#define CONFIG_MAX_FWDS 8

/* One fwd=tcp|udp:[ADDR:]HOSTPORT:GUESTPORT of a user-mode NIC. */
struct nic_fwd {
	bool udp;
	char addr[CONFIG_IP_MAX]; /* host address to bind; "" = all */
	uint16_t host_port, guest_port;
};

/* One -n/--network: kvmtool's settings, see vmm/netopt.h. */
struct nic_config {
	enum nic_mode mode;
	bool implicit;		       /* the default NIC: no -n given */
	char tapif[CONFIG_IFNAME_MAX]; /* "" = kernel picks */
	uint8_t mac[6];		       /* guest_mac */
	uint8_t host_mac[6];	       /* host_mac (user mode) */
	char host_ip[CONFIG_IP_MAX];
	char guest_ip[CONFIG_IP_MAX];
	char script[CONFIG_PATH_MAX]; /* "none" = lkvm sets host_ip */
	char downscript[CONFIG_PATH_MAX];
	enum virtio_transport transport; /* trans=; DEFAULT: the global */
	/*
	 * vhost=1: the rings served by vhost-net (mode=tap) or by passt's
	 * vhost-user back-end (mode=user).  A user-mode NIC without vhost=
	 * (vhost_given false, the default NIC too) gets vhost-user when
	 * the installed passt offers it (netopt_choose_vhost(), before
	 * guest RAM is made); vhost_why says why, for --debug.
	 */
	bool vhost;
	bool vhost_given;
	const char *vhost_why;
	struct nic_fwd fwd[CONFIG_MAX_FWDS];
	unsigned int nr_fwd;
};

/*
 * One -d/--disk: path[,ro][,direct][,raw][,queues=N][,format=F][,snapshot].
 * A format other than raw (format=, or a name ending .qcow2) or
 * ,snapshot: served by qemu-storage-daemon (vmm/host/qsd.h).
 */
#define CONFIG_DISK_FORMAT_MAX 8
/* Request queues a disk may have (virtio-mmio's VIRTIO_MMIO_MAX_QUEUES). */
#define CONFIG_MAX_DISK_QUEUES 8

struct disk_config {
	char path[CONFIG_PATH_MAX];
	bool ro;
	bool direct;
	bool raw; /* no format check: served as raw even if it looks qcow2 */
	unsigned int queues; /* 1..CONFIG_MAX_DISK_QUEUES; 0: one per vCPU */
	char format[CONFIG_DISK_FORMAT_MAX]; /* format=, "" when not given */
	bool snapshot; /* writes go to a throw-away overlay */
};
#define CONFIG_CMDLINE_MAX 4096
/* -i given more than once: the files are concatenated in order. */
#define CONFIG_MAX_INITRDS 8

/* --9p dir,tag (and the shares -d DIR and the sandbox add). */
#define CONFIG_MAX_SHARES 4
#define CONFIG_TAG_MAX 64 /* virtio-9p's VIRTIO_9P_TAG_MAX */

struct share_config {
	char path[CONFIG_PATH_MAX];
	char tag[CONFIG_TAG_MAX + 1];
	bool ro; /* the server refuses changes (the sandbox's hostfs) */
};

/* --fs DIR,TAG[,ro]: virtio-fs served by virtiofsd (vhost-user). */
#define CONFIG_MAX_FS 2
#define CONFIG_FS_TAG_MAX 36 /* virtio-fs configuration's tag[36] */

struct fs_config {
	char path[CONFIG_PATH_MAX];
	char tag[CONFIG_FS_TAG_MAX + 1];
	bool ro; /* virtiofsd --readonly */
};

/* --vsock: the CIDs a guest may have (virtio/vsock.h's range). */
#define CONFIG_VSOCK_CID_MIN 3
#define CONFIG_VSOCK_CID_MAX 4294967294ULL
/*
 * --vsock CID,socket=PATH: PATH's longest, so that PATH_<port> (a port
 * has up to 10 digits) fits a unix socket address (108 bytes).
 */
#define CONFIG_VSOCK_SOCKET_MAX 96

/* --io-poll's default, when the host has a CPU more than the guest. */
#define CONFIG_IO_POLL_US 1000
/* How long a guest's SBI system suspend lasts without --suspend-seconds. */
#define CONFIG_SUSPEND_SECONDS 5

struct vm_config {
	const char *kernel;
	const char *initrds[CONFIG_MAX_INITRDS]; /* -i, in order */
	unsigned int nr_initrds;
	const char *params; /* -p as given */
	const char *name;   /* default guest-<pid> */
	const char *dump_dtb;
	const char *dev; /* default /dev/kvm */
	const char *hugetlbfs;
	uint64_t ram_size; /* bytes */
	unsigned int nr_cpus;
	enum console_type console;
	enum irqchip_choice irqchip;
	bool nodefaults;
	bool rng;	    /* --rng: a virtio-rng device */
	bool balloon;	    /* --balloon: virtio-balloon */
	uint64_t vsock_cid; /* --vsock: the guest's CID; 0: no vsock */
	/* --vsock CID,socket=PATH: lkvm serves it; "": vhost-vsock */
	char vsock_socket[CONFIG_VSOCK_SOCKET_MAX + 1];
	enum virtio_transport transport; /* --virtio-transport */
	struct disk_config disks[CONFIG_MAX_DISKS];
	unsigned int nr_disks;
	struct nic_config nics[CONFIG_MAX_NICS];
	unsigned int nr_nics;
	struct share_config shares[CONFIG_MAX_SHARES];
	unsigned int nr_shares;
	/*
	 * --fs (and -n mode=user,vhost=1): guest RAM is then a memfd the
	 * daemon maps (shmem.h, config_vhost_user()).
	 */
	struct fs_config fs[CONFIG_MAX_FS];
	unsigned int nr_fs;
	/* -d DIR: the guest's root is a share tagged /dev/root. */
	bool rootfs_9p;
	/*
	 * -d NAME (a root made by 'lkvm setup' in ~/.lkvm/NAME) or a
	 * sandbox: also the host's / as "hostfs", and lkvm's guest init.
	 */
	bool custom_rootfs;
	char rootfs_name[256];
	/* lkvm sandbox -- COMMAND ARGS, or lkvm run --sandbox SCRIPT. */
	bool sandbox;
	char **sandbox_argv; /* COMMAND [ARGS], NULL-terminated */
	const char *sandbox_script;
	long pid;     /* lkvm's, names the sandbox's run directory */
	bool no_net;  /* -n mode=none: no default NIC */
	bool no_dhcp; /* --no-dhcp */
	bool debug;
	int loglevel; /* enum log_level */

	/* Extensions the user asked to disable, by KVM id (see isa.h). */
	uint64_t disable_isa[ISA_EXT_WORDS];
	uint64_t disable_sbi;

	bool set_mvendorid, set_marchid, set_mimpid;
	uint64_t mvendorid, marchid, mimpid;

	/*
	 * --cpu-type min[,EXT...]: only rv64imafdc and the listed extensions
	 * (min_isa); max (the default): everything KVM offers.
	 */
	bool cpu_min;
	uint64_t min_isa[ISA_EXT_WORDS];

	const char *firmware;	      /* -f: a raw image run at RAM base */
	bool set_suspend_seconds;     /* --suspend-seconds given */
	unsigned int suspend_seconds; /* 0: resume at once */
	bool single_step;	      /* --debug-single-step */
	bool debug_mmio;	      /* --debug-mmio: log unclaimed accesses */
	bool reboot_new_vm; /* --debug-reboot-new-vm: never keep the VM */
	bool debug_ioport;  /* --debug-ioport: no port I/O on RISC-V */
	unsigned int debug_iodelay_ms; /* --debug-iodelay */
	int io_poll_us; /* --io-poll: the longest window; -1: automatic */
	enum io_notify io_notify; /* --io-notify */
	int tty;		  /* --tty N: console on a pty; -1: no */
	bool no_seccomp;	  /* --no-seccomp */
	bool no_reboot;		  /* --no-reboot: a guest reset ends the run */
	unsigned int timeout_s;	 /* --timeout: stop the guest after; 0: never */
	const char *console_log; /* --console-log: the whole console */
	const char *gdb;	 /* --gdb tcp:[HOST:]PORT | unix:PATH */
	bool gdb_wait;		 /* --gdb-wait: vCPUs start held */
	const char *dump_on_panic; /* --dump-on-panic FILE */

	/* The guest kernel command line, assembled from defaults and -p. */
	char cmdline[CONFIG_CMDLINE_MAX];

	/* Storage behind name when it is the default guest-<pid>. */
	char default_name[32];
	char found_kernel
		[CONFIG_PATH_MAX]; /* no -k: the one found (kvmtool's) */
};

/* Whether ISA extension @id is to be hidden (--disable-EXT, --cpu-type). */
static inline bool config_isa_hidden(const struct vm_config *cfg,
				     unsigned int id)
{
	return isa_ext_test(cfg->disable_isa, id) ||
	       (cfg->cpu_min && !isa_ext_test(cfg->min_isa, id));
}

/* A -d whose name says qcow2 (".qcow2"), unless ,raw says otherwise. */
static inline bool config_disk_named_qcow2(const struct disk_config *dc)
{
	size_t n = strlen(dc->path);

	return !dc->raw && !dc->format[0] && n > 6 &&
	       !strcmp(dc->path + n - 6, ".qcow2");
}

/*
 * Does qemu-storage-daemon serve dc: a format other than raw asked for
 * (by format= or by name), or ,snapshot?  Never the image's contents.
 */
static inline bool config_disk_qsd(const struct disk_config *dc)
{
	return dc->snapshot || (dc->format[0] && strcmp(dc->format, "raw")) ||
	       config_disk_named_qcow2(dc);
}

/*
 * A vhost-user back-end (virtiofsd for --fs, passt for a user-mode NIC
 * with vhost (vhost=1, or chosen for it), qemu-storage-daemon for a -d)
 * maps guest RAM: it must be a shareable memfd.
 */
static inline bool config_vhost_user(const struct vm_config *cfg)
{
	for (unsigned int i = 0; i < cfg->nr_disks; i++)
		if (config_disk_qsd(&cfg->disks[i]))
			return true;
	for (unsigned int i = 0; i < cfg->nr_nics; i++)
		if (cfg->nics[i].mode == NIC_MODE_USER && cfg->nics[i].vhost)
			return true;
	return cfg->nr_fs != 0;
}

#endif
