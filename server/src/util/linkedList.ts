/** What a LinkedList holds: its links live in the node's own fields. */
export interface ListNode<T> {
    /** @internal the node before and after this one while it is in a list */
    prev?: T;
    /** @internal */
    next?: T;
    /** @internal whether it is in a list */
    listed?: boolean;
}

/**
 * A doubly linked list whose links are fields of the nodes themselves: inserting and removing
 * anywhere is O(1) and makes no entry object. For per-call bookkeeping on hot paths, where an
 * array's search and splice cost a few per cent of the CPU and a Set or Map under churn keeps its
 * old entries alive for the GC (see rpc/inFlight.ts). A node is in one list at a time.
 */
export class LinkedList<T extends ListNode<T>> {
    first?: T;
    last?: T;
    size = 0;

    /** Adds `node` last. */
    push(node: T): void {
        this.insertAfter(node, this.last);
    }

    /** Adds `node` right after `before`, or first when `before` is undefined. */
    insertAfter(node: T, before: T | undefined): void {
        node.prev = before;
        node.next = before ? before.next : this.first;
        if (node.next) {
            node.next.prev = node;
        } else {
            this.last = node;
        }
        if (before) {
            before.next = node;
        } else {
            this.first = node;
        }
        node.listed = true;
        this.size++;
    }

    /** Takes `node` out; false (and nothing done) when it is not in the list. */
    remove(node: T): boolean {
        if (!node.listed) {
            return false;
        }
        node.listed = false;
        if (node.prev) {
            node.prev.next = node.next;
        } else {
            this.first = node.next;
        }
        if (node.next) {
            node.next.prev = node.prev;
        } else {
            this.last = node.prev;
        }
        node.prev = node.next = undefined;
        this.size--;
        return true;
    }
}
