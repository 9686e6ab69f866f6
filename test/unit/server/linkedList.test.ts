import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LinkedList, type ListNode } from '../../../server/src/util/linkedList.js';

// The list the gateway's running calls and the deferral deadlines are kept in, links in the nodes
// themselves: its order, size and removal must match an array's, and removing twice is nothing.

interface Node extends ListNode<Node> {
    n: number;
}

function order(list: LinkedList<Node>): number[] {
    const forward: number[] = [];
    for (let node = list.first; node; node = node.next) {
        forward.push(node.n);
    }
    const backward: number[] = [];
    for (let node = list.last; node; node = node.prev) {
        backward.unshift(node.n);
    }
    assert.deepEqual(backward, forward, 'the links agree both ways');
    return forward;
}

describe('LinkedList', () => {
    it('pushes last, inserts after a node or first, and removes a node once', () => {
        const list = new LinkedList<Node>();
        const [a, b, c, d] = [1, 2, 3, 4].map(n => ({ n }) as Node);
        list.push(a!);
        list.push(c!);
        list.insertAfter(b!, a);
        list.insertAfter(d!, undefined);
        assert.deepEqual(order(list), [4, 1, 2, 3]);
        assert.equal(list.size, 4);
        assert.equal(list.remove(b!), true);
        assert.equal(list.remove(b!), false);
        assert.equal(list.remove(d!), true);
        assert.equal(list.remove(c!), true);
        assert.deepEqual(order(list), [1]);
        assert.equal(list.size, 1);
        assert.equal(list.first, a);
        assert.equal(list.last, a);
        list.remove(a!);
        assert.equal(list.first, undefined);
        assert.equal(list.last, undefined);
        assert.equal(list.size, 0);
    });

    it('matches an array over 20,000 random inserts and removals', () => {
        let seed = 7;
        const random = (below: number) => {
            seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
            return seed % below;
        };
        const list = new LinkedList<Node>();
        const model: Node[] = [];
        const removed: Node[] = [];
        for (let step = 0; step < 20_000; step++) {
            const choice = random(4);
            if (choice === 0 && model.length > 0) {
                const node = model.splice(random(model.length), 1)[0]!;
                assert.equal(list.remove(node), true);
                removed.push(node);
            } else if (choice === 1 && removed.length > 0) {
                assert.equal(list.remove(removed[random(removed.length)]!), false);
            } else {
                const node: Node = { n: step };
                const at = random(model.length + 1);
                list.insertAfter(node, at === 0 ? undefined : model[at - 1]);
                model.splice(at, 0, node);
            }
            assert.equal(list.size, model.length);
        }
        assert.deepEqual(order(list), model.map(node => node.n));
    });
});
